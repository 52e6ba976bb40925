"""The studies: long measurements whose JSON and Markdown are committed in ``benchmarks/results``; each runs as
``python -m benchmarks.studies.NAME`` from the repository root."""

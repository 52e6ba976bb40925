"""The asv suites, one module per family plus the kernels (``asv.conf.json``: ``benchmark_dir``)."""

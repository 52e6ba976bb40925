"""``python -m svmopt`` runs the command-line interface."""

import sys

from svmopt.cli import main

sys.exit(main())

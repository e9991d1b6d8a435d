import sys

from elgrande.cli import main

sys.exit(main())

"""`python -m service.cli`: the `mnemograph` command."""

from service.cli.main import main

raise SystemExit(main())

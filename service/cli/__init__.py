"""The `mnemograph` command line: the service's commands (`main`) and the memory commands that
talk to a running service over HTTP."""

"""Developer tools that ship outside the runtime package (`make docs`)."""

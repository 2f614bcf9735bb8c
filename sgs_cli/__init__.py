"""The `sgs` command."""

"""A stand-in for BorgBackup, for testing the borg adapter (conformance.impls.Borg) where borg is absent."""

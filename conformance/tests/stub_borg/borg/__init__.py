"""A stand-in for BorgBackup, for testing the borg adapter (impls.Borg) where borg is absent."""

"""A minimal SQL track for the core's store, accounts and queue tests: its tables and migrations."""

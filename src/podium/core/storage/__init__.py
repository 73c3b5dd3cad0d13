"""Storage: run directories in official layouts, safe reading and writing, and resumability state."""

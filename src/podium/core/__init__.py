"""The track-independent core: errors, records, registry, storage, ranking and reporting."""

"""The trust layer: principals, records, audit, ingest, the writer and the reader."""

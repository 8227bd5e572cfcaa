//! ndq: a streaming, parallel NDJSON query engine.

"""The review server: FastAPI app, database, ingest, the background pipeline, review pages."""

"""The review server: FastAPI app, database, ingest, jobs and pages (filled by the review issue)."""

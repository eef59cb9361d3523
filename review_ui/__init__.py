"""The review server: FastAPI app, database, ingest, the background pipeline, review pages."""

from . import pipeline_models  # noqa: F401 - registers the pipeline's table with the shared metadata

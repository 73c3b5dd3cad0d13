"""HTTP: the FastAPI application factory and the shared page layout; tracks contribute routers."""

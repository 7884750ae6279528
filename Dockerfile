# The retrieval-eval image: the CLI as the entry point, so the same image serves as
#   docker run --rm -v "$PWD:/work" -w /work IMAGE score -j judgments.jsonl -r run.jsonl
# and as the GitHub Action, whose action.yml passes the subcommand `action` as args.
FROM python:3.12-slim

# No .pyc files or pip caches in the layers; unbuffered output keeps log lines in order.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

# git finds the base branch's report. The runner mounts the workspace owned by
# another uid, which git refuses without safe.directory.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git \
 && rm -rf /var/lib/apt/lists/* \
 && git config --system --add safe.directory '*'

WORKDIR /opt/retrieval-eval

# Dependencies first, read from pyproject.toml alone: this layer is rebuilt only
# when the dependencies change, not on every source edit. The image is ours to
# fill, so it has the "fast" extra too (orjson: about 12 % off a large score).
COPY pyproject.toml ./
RUN python -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; print('\n'.join(p['dependencies'] + p['optional-dependencies']['fast']))" \
      > /tmp/requirements.txt \
 && pip install --no-cache-dir -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt

COPY README.md ./
COPY src ./src
RUN pip install --no-cache-dir --no-deps . \
 && rm -rf /opt/retrieval-eval/build /opt/retrieval-eval/src/*.egg-info

# No USER line: the Actions runner needs root to write to the mounted workspace
# and to the files under /github/file_commands.
ENTRYPOINT ["retrieval-eval"]
CMD ["--help"]

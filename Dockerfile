# The retrieval-eval image: the CLI as the entry point, so the same image serves as
#   docker run --rm -v "$PWD:/work" -w /work IMAGE score -j judgments.jsonl -r run.jsonl
# and as the GitHub Action, whose action.yml passes the subcommand `action` as args.
#
# Only Python packages are added to the base: no apt packages, no compilers. The base
# branch's report is read from the checkout's git objects by the package itself (or
# through the GitHub API), so the image has no git binary (it would add about 100 MB
# of git and Perl). docs/action.md, section "Image", lists each layer and its size.
FROM python:3.12-slim

# No pip caches in the layers; unbuffered output keeps log lines in order.
# PYTHONDONTWRITEBYTECODE stops run-time .pyc writes into the image's site-packages;
# pip still compiles the .pyc files at install, so the CLI starts without compiling.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

WORKDIR /opt/retrieval-eval

# Dependencies first, read from pyproject.toml alone: this layer is rebuilt only
# when the dependencies change, not on every source edit. The arguments after the
# script name are the extras to add to the core dependencies. The image is ours to
# fill, so it has the "fast" extra too (orjson: about 12 % off a large score; numpy,
# which comes with the lanes layer below: the comparison's bootstrap drawn with the
# same draws in a fraction of the time).
COPY pyproject.toml ./
RUN python -c "import sys, tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; print('\n'.join(p['dependencies'] + [d for e in sys.argv[1:] for d in p['optional-dependencies'][e] if not d.startswith('numpy')]))" fast \
      > /tmp/requirements.txt \
 && pip install --no-cache-dir -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt

# The "lanes" extra (bm25s, numpy, scipy, PyStemmer: the BM25 floor computed in the job,
# floor: bm25, and the eval-set check) in a layer of its own, between the core's
# dependencies and the package: the layers above stay small and cached, and its size
# shows up on its own line of `docker history` (docs/action.md, "Image"). numpy's and
# scipy's own test suites (never imported at run time) are removed in the same layer.
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['lanes']))" \
      > /tmp/lanes.txt \
 && pip install --no-cache-dir -r /tmp/lanes.txt \
 && rm /tmp/lanes.txt \
 && python -c "import numpy, scipy, os; print(os.path.dirname(numpy.__path__[0]))" > /tmp/site \
 && find "$(cat /tmp/site)/numpy" "$(cat /tmp/site)/scipy" -depth -type d -name tests -exec rm -rf {} + \
 && rm /tmp/site

COPY README.md ./
COPY src ./src
RUN pip install --no-cache-dir --no-deps . \
 && rm -rf /opt/retrieval-eval/build /opt/retrieval-eval/src/*.egg-info

# No USER line: the Actions runner needs root to write to the mounted workspace
# and to the files under /github/file_commands.
ENTRYPOINT ["retrieval-eval"]
CMD ["--help"]

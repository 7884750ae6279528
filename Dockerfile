# The retrieval-eval image: the CLI as the entry point, so the same image serves as
#   docker run --rm -v "$PWD:/work" -w /work IMAGE score -j judgments.jsonl -r run.jsonl
# and as the GitHub Action, whose action.yml passes the subcommand `action` as args.
#
# Only Python packages are added to the base: no apt packages, no compilers. The base
# branch's report is read from the checkout's git objects by the package itself (or
# through the GitHub API), so the image has no git binary (it would add about 100 MB
# of git and Perl). docs/action.md, section "Image", lists each layer and its size.
# The dependency lists, read from pyproject.toml in a stage of their own: the image's
# dependency layers below are cached on the lists' content, so an edit elsewhere in
# pyproject.toml (the test extra, a tool's settings) does not install them again.
# Only the two text files leave this stage. The image is ours to fill, so it has the
# "fast" extra too (orjson: about 12 % off a large score; pysimdjson: a run's heads read
# in C, 0.89x the wall of a score in one process; numpy, which comes with the lanes list:
# the comparison's bootstrap drawn with the same draws in a fraction of the time). The
# "lanes" extra (bm25s, numpy, scipy, PyStemmer: the BM25 floor computed in the job,
# floor: bm25, and the eval-set check) gets its own list and layer.
FROM python:3.12-slim AS requirements
COPY pyproject.toml /tmp/
RUN python -c "import tomllib; p = tomllib.load(open('/tmp/pyproject.toml', 'rb'))['project']; e = p['optional-dependencies']; open('/tmp/core.txt', 'w').write('\n'.join(p['dependencies'] + [d for d in e['fast'] if not d.startswith('numpy')]) + '\n'); open('/tmp/lanes.txt', 'w').write('\n'.join(e['lanes']) + '\n')"

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

# The core's dependencies (and the fast extra's orjson and pysimdjson). pysimdjson's wheel
# also ships the C++ sources its extension was built from (7.4 MB), never read at run time.
COPY --from=requirements /tmp/core.txt /tmp/lanes.txt /tmp/
RUN pip install --no-cache-dir -r /tmp/core.txt && rm /tmp/core.txt \
 && cd "$(python -c "import os, simdjson; print(os.path.dirname(simdjson.__file__))")" \
 && rm -f simdjson.cpp simdjson.h util.cpp util.h csimdjson.pyx csimdjson.pxd

# The "lanes" extra in a layer of its own, between the core's dependencies and the
# package: the layers above stay small and cached, and its size shows up on its own
# line of `docker history` (docs/action.md, "Image"). numpy's and scipy's own test
# suites (never imported at run time) are removed in the same layer.
RUN pip install --no-cache-dir -r /tmp/lanes.txt \
 && rm /tmp/lanes.txt \
 && python -c "import numpy, scipy, os; print(os.path.dirname(numpy.__path__[0]))" > /tmp/site \
 && find "$(cat /tmp/site)/numpy" "$(cat /tmp/site)/scipy" -depth -type d -name tests -exec rm -rf {} + \
 && rm /tmp/site

COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install --no-cache-dir --no-deps . \
 && rm -rf /opt/retrieval-eval/build /opt/retrieval-eval/src/*.egg-info

# No USER line: the Actions runner needs root to write to the mounted workspace
# and to the files under /github/file_commands.
ENTRYPOINT ["retrieval-eval"]
CMD ["--help"]

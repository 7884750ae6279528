"""Hostile user templates for ``render --template-dir``: every allocation a template can ask for
is bounded, and a template past a bound is refused naming it, exit 2, never a traceback.

A template is code the pull request controls (``template-dir`` can come from its config file):
it must not be able to make the job allocate gigabytes, whichever operation it uses to try.
"""

from __future__ import annotations

from pathlib import Path

from hostile.case import HostileCase

DEMO = Path(__file__).resolve().parents[2] / "src" / "retrieval_eval" / "demo"


def _report() -> bytes:
    """A real report, made by the pipeline from the demo data (the template is what is hostile here)."""
    from retrieval_eval.core.scoring import ScoreConfig
    from retrieval_eval.formats.report import dump_report
    from retrieval_eval.pipeline.evaluate import run_pipeline
    from retrieval_eval.pipeline.request import EvaluationRequest

    request = EvaluationRequest(
        judgments_path=str(DEMO / "judgments.jsonl"),
        run_path=str(DEMO / "run.jsonl"),
        scoring=ScoreConfig(k=(5, 10)),
        generated_at="2026-01-01T00:00:00Z",
    )
    return dump_report(run_pipeline(request).report).encode("utf-8")


REPORT = _report()
BIG = '"x" * 100000'  # a value a template may make; each case below goes past the bound from it
# Each: a name, and a template body that asks for far more than any comment could hold.
TEMPLATES: dict[str, str] = {
    "range-huge": "{{ range(10**9) }}",
    "range-huge-list": "{{ range(10**9) | list | length }}",
    "str-repeat": '{{ "x" * 10**10 }}',
    "str-repeat-reversed": '{{ 10**10 * "x" }}',
    "list-repeat": "{{ ([0] * 10**10) | length }}",
    "repeat-of-a-repeat": f"{{{{ ({BIG}) * 100000 }}}}",
    "int-power": "{{ (9 ** 999999999) % 7 }}",
    "int-squaring-loop": (
        "{% set ns = namespace(n=3) %}{% for i in range(64) %}{% set ns.n = ns.n * ns.n %}{% endfor %}{{ ns.n % 7 }}"
    ),
    "float-power": "{{ 10.0 ** 400 }}",
    "percent-width": '{{ "%999999999d" % 1 }}',
    "percent-star-width": '{{ "%*d" % (999999999, 1) }}',
    "percent-precision": '{{ "%.999999999f" % 1.0 }}',
    "percent-many-fields": f'{{{{ ("%(a)s" * 10000) % {{"a": {BIG}}} }}}}',
    "format-method-width": '{{ "{:>999999999}".format(1) }}',
    "format-nested-width": '{{ "{:>{}}".format(1, 999999999) }}',
    "format-map-fields": f'{{{{ ("{{a}}" * 10000).format_map({{"a": {BIG}}}) }}}}',
    "format-filter": '{{ "%999999999s" | format("x") }}',
    "center-method": '{{ "x".center(10**10) }}',
    "ljust-method": '{{ "x".ljust(10**10) }}',
    "zfill-method": '{{ "1".zfill(10**10) }}',
    "expandtabs-method": '{{ ("\\t" * 100000).expandtabs(100000) }}',
    "replace-method": f'{{{{ ({BIG}).replace("x", {BIG}) }}}}',
    "join-method": f"{{{{ ({BIG}).join(({BIG}) | list) }}}}",
    "translate-method": f"{{{{ ({BIG}).translate({{120: {BIG}}}) }}}}",
    "to-bytes": '{{ (1).to_bytes(10**10, "big") }}',
    "lipsum": "{{ lipsum(10**7) }}",
    "center-filter": '{{ "x" | center(10**10) }}',
    "replace-filter-empty": f'{{{{ ({BIG}) | replace("", {BIG}) }}}}',
    "join-filter": f"{{{{ ({BIG}) | list | join({BIG}) }}}}",
    "indent-filter-string-width": f'{{{{ ("\\n" * 100000) | indent({BIG}) }}}}',
    "wordwrap-filter": f'{{{{ ("x " * 50000) | wordwrap(1, wrapstring={BIG}) }}}}',
    "batch-filter": '{{ [1] | batch(10**9, "x") | list | length }}',
    "concat-doubling": (
        '{% set ns = namespace(s="x") %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}'
        "{{ ns.s | length }}"
    ),
    "plus-doubling": (
        '{% set ns = namespace(s="x") %}{% for i in range(64) %}{% set ns.s = ns.s + ns.s %}{% endfor %}'
        "{{ ns.s | length }}"
    ),
    "join-doubling": (
        '{% set ns = namespace(s="x") %}{% for i in range(64) %}{% set ns.s = [ns.s, ns.s] | join %}{% endfor %}'
        "{{ ns.s | length }}"
    ),
    "replace-doubling": (
        '{% set ns = namespace(s="x") %}{% for i in range(64) %}{% set ns.s = ns.s | replace("x", "xx") %}'
        "{% endfor %}{{ ns.s | length }}"
    ),
    "tojson-doubling": (
        '{% set ns = namespace(s="\\\\") %}{% for i in range(64) %}{% set ns.s = ns.s | tojson %}{% endfor %}'
        "{{ ns.s | length }}"
    ),
    "nested-lists-printed": (
        f"{{% set a = [{BIG}] %}}"
        + "".join("{% set a = [a, a, a, a, a, a, a, a, a, a] %}" for _ in range(8))
        + "{{ a }}"
    ),
    "nested-lists-stringified": (
        f"{{% set a = [{BIG}] %}}"
        + "".join("{% set a = [a, a, a, a, a, a, a, a, a, a] %}" for _ in range(8))
        + "{{ a | string | length }}"
    ),
    "nested-lists-joined": (
        f"{{% set a = [{BIG}] %}}"
        + "".join("{% set a = [a, a, a, a, a, a, a, a, a, a] %}" for _ in range(8))
        + "{{ a | join | length }}"
    ),
    "block-set-capture": (
        f"{{% set s = {BIG} %}}{{% set big %}}{{% for i in range(100000) %}}{{{{ s }}}}{{% endfor %}}"
        "{% endset %}{{ big | length }}"
    ),
    "macro-output": (
        f"{{% macro m() %}}{{% for i in range(100000) %}}{{{{ {BIG} }}}}{{% endfor %}}{{% endmacro %}}"
        "{{ m() | length }}"
    ),
    "list-extend-doubling": "{% set l = [1] %}{% for i in range(64) %}{{ l.extend(l) }}{% endfor %}",
    "macro-recursion": "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}",
    "division-by-zero": "{{ 1 / 0 }}",
}


def _case(name: str, body: str) -> HostileCase:
    return HostileCase(
        item="9",
        name=f"template-{name}",
        argv=("render", "--report", "report.json", "--format", "comment", "--template-dir", "templates"),
        files={"report.json": REPORT, "templates/comment.md.j2": ("{{ marker }}\n" + body + "\n").encode()},
        stderr_has="template comment.md.j2",
        timeout=30,
    )


CASES: list[HostileCase] = [_case(name, body) for name, body in TEMPLATES.items()]

# Output that floods past anything GitHub could show is cut, and the size budget then does
# what it does for any over-long rendering: the short form that points at the report.
CASES.append(
    HostileCase(
        item="9",
        name="template-output-flood",
        argv=("render", "--report", "report.json", "--format", "comment", "--template-dir", "templates"),
        files={
            "report.json": REPORT,
            "templates/comment.md.j2": (
                b"{{ marker }}\n{% for i in range(100000) %}{% for j in range(100000) %}{{ 'x' * 100000 }}"
                b"{% endfor %}{% endfor %}\n"
            ),
        },
        exit_code=0,
        stdout_has="over GitHub's limit",
        timeout=60,
    )
)
# A template file that is not a template at all (huge) is refused before it is read whole.
CASES.append(
    HostileCase(
        item="9",
        name="template-file-huge",
        argv=("render", "--report", "report.json", "--format", "comment", "--template-dir", "templates"),
        files={"report.json": REPORT, "templates/comment.md.j2": b"{{ marker }}\n" + b"x" * (9 << 20)},
        stderr_has="template comment.md.j2",
    )
)


# -- 17: characters that draw nothing (Unicode format and control characters) still show ---------
def _report_with_stratum(name: str) -> bytes:
    import json

    report = json.loads(REPORT)
    strata = report["per_stratum"]
    strata[name] = strata.pop(next(iter(strata)))
    return json.dumps(report).encode()


for label, hidden in [
    ("tag-characters", "\U000e0041\U000e0042"),  # invisible letters: text a reviewer cannot see
    ("word-joiner", "\u2060"),
    ("byte-order-mark", "\ufeff"),
    ("arabic-number-sign", "\u0600"),
]:
    CASES.append(
        HostileCase(
            item="17",
            name=f"stratum-{label}-shown",
            argv=("render", "--report", "report.json", "--format", "summary"),
            files={"report.json": _report_with_stratum(f"billing{hidden}x")},
            exit_code=0,
            stdout_has=f"billing⟨U+{ord(hidden[0]):04X}⟩",
            check=None,
        )
    )

"""docs/settings.md's settings table is the settings table: one row per setting, from the code's one definition."""

from __future__ import annotations

from pathlib import Path

from retrieval_eval.pipeline.settings import ACTION, CLI, CONFIG, SETTINGS

SETTINGS_DOC = Path(__file__).resolve().parent.parent / "docs" / "settings.md"
ACTION_YML = Path(__file__).resolve().parent.parent / "action.yml"


def expected_table() -> str:
    rows = ["| setting | CLI flag | action input | config key | default | meaning |", "|---|---|---|---|---|---|"]
    for s in SETTINGS:
        flag = ", ".join(f"`{part.strip()}`" for part in s.flag.split(",")) if CLI in s.where and s.flag else "—"
        default = s.shown_default or (f"`{s.default}`" if s.default else "—")
        rows.append(
            f"| {s.name} | {flag} | {'`' + s.name + '`' if ACTION in s.where else '—'} "
            f"| {'`' + s.name + '`' if CONFIG in s.where else '—'} | {default} | {s.help} |"
        )
    return "\n".join(rows)


def test_the_documented_table_is_generated_from_the_settings() -> None:
    text = SETTINGS_DOC.read_text(encoding="utf-8")
    assert expected_table() in text, (
        "docs/settings.md's settings table is stale; paste expected_table()'s output:\n" + (expected_table())
    )


def test_every_action_setting_is_an_input_of_action_yml() -> None:
    text = ACTION_YML.read_text(encoding="utf-8")
    for setting in SETTINGS:
        if ACTION in setting.where:
            assert f"\n  {setting.name}:\n" in text, f"action.yml has no input {setting.name}"

"""The memory commands' pure parts: piped text and the imports that exit as failures."""

from __future__ import annotations

from service.cli.backup_views import import_shortfall
from service.cli.memory_views import without_final_line_break


def test_piped_text_loses_only_the_line_break_that_ends_it() -> None:
    assert without_final_line_break("note\n") == "note"
    assert without_final_line_break("note\r\n") == "note"
    assert without_final_line_break("two\nlines\n\n") == "two\nlines\n"
    assert without_final_line_break("note") == "note"
    assert without_final_line_break("note\r") == "note\r"


def test_an_import_is_a_failure_when_lines_were_refused_or_the_end_line_is_missing() -> None:
    whole = {"failed": 0, "complete": True}
    assert import_shortfall(whole) is None
    refused = import_shortfall({"failed": 2, "complete": True})
    assert refused is not None
    assert (refused.error_type, refused.message, refused.exit_code) == (
        "incomplete",
        "2 lines refused (see the report); the others are imported, and importing the file "
        "again is safe",
        1,
    )
    one = import_shortfall({"failed": 1, "complete": True})
    assert one is not None and one.message.startswith("1 line refused (see the report);")
    cut = import_shortfall({"failed": 0, "complete": False})
    assert cut is not None
    assert (cut.message, cut.exit_code) == ("the file has no end line: it may be cut short", 1)

from __future__ import annotations

import logging

from shokunin.runs.failure import public_message, redact_paths


def test_paths_are_redacted_but_urls_and_names_stay() -> None:
    text = ("cannot open '/srv/app/data/map/map.json' (see https://example.com/a/b/c); "
            "also /tmp/x/y.db and ratio 3/4")
    assert redact_paths(text) == ("cannot open '…/map.json' (see https://example.com/a/b/c); "
                                  "also …/y.db and ratio 3/4")


def test_public_message_has_the_text_and_an_id_the_log_has_the_traceback(caplog) -> None:  # noqa: ANN001
    try:
        raise KeyError("/home/op/secret/file.txt")
    except KeyError as exc:
        message = public_message(exc, logging.getLogger("t"), "doing it")
    assert "/home" not in message and "file.txt" in message and "KeyError" not in message
    error_id = message.rsplit("error ", 1)[1].rstrip(")")
    assert caplog.records[-1].exc_info and error_id in caplog.records[-1].getMessage()

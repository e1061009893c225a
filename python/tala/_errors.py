"""tala's errors as Python exceptions, one per engine error code."""


class TalaError(Exception):
    """An error from tala's engine; ``code`` is the engine's error code ("data error", ...)."""

    def __init__(self, message, code="internal error", file="", line=0, field=""):
        super().__init__(message)
        self.code = code
        self.file = file
        self.line = line
        self.field = field


class DatasetError(TalaError, ValueError):
    """A bad input row: ``line`` (1-based; for a list of rows, the row's index + 1) and
    ``field`` name it, as the CLI's ``file:line: field "x": ...`` message does; for a DataFrame,
    ``index`` is the row's index label."""

    index = None


class InvalidArgumentError(TalaError, ValueError):
    """Bad options: an unknown metric or judge, a value out of range."""


class NotFoundError(TalaError, FileNotFoundError):
    """A file, metric or judge that does not exist."""


class JudgeError(TalaError, RuntimeError):
    """The judge failed for good: unreachable, rejected the key, or broke its contract."""


class IoError(TalaError, OSError):
    """A file that exists but cannot be read or written (permissions, a full disk)."""


_BY_CODE = {
    "data error": DatasetError,
    "invalid argument": InvalidArgumentError,
    "not found": NotFoundError,
    "unavailable": JudgeError,
    "rate limited": JudgeError,
    "deadline exceeded": JudgeError,
    "bad reply": JudgeError,
    "io error": IoError,
}


def error_for(error, rows_file=None, rows_label="rows", row_errors=(), index=None):
    """The exception for an engine error dict; a temporary rows file is named as the list.

    For bad rows the engine reports a count; the first bad row's line and field go on the
    exception, every row's message into its text and ``errors``. ``index`` (a DataFrame's
    index) turns a row's line into its index label: "dataframe[index='q7']: field ..."."""

    def named(e):
        # An error about a file reads "file:line: field ...: message"; the others, the bare
        # message (their kind is the exception's class).
        text, file = (e["text"] if e["file"] else e["message"]), e["file"]
        if rows_file is not None and file == rows_file:
            place = f"{rows_file}:{e['line']}:"
            if index is not None and 0 < e["line"] <= len(index) and text.startswith(place):
                text = f"{rows_label}[index={index[e['line'] - 1]!r}]:" + text[len(place):]
            text, file = text.replace(rows_file, rows_label, 1), rows_label
        return text, file

    text, file = named(error)
    # The engine's remedies name the CLI's flags; here they are keywords.
    text = text.replace("pass --on-error skip", 'pass on_error="skip"')
    line, field = error["line"], error["field"]
    details = [named(e)[0] for e in row_errors]
    if row_errors:
        first = row_errors[0]
        file, line, field = named(first)[1], first["line"], first["field"]
        text = "\n".join(details + [text])
    cls = _BY_CODE.get(error["code"], TalaError)
    exc = cls(text, code=error["code"], file=file, line=line, field=field)
    exc.errors = details
    if index is not None and 0 < line <= len(index):
        exc.index = index[line - 1]
    return exc

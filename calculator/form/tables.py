"""An article's generated tables as HTML."""

from __future__ import annotations

from html import escape

from .model import Table


def table_html(table: Table) -> str:
    """A generated table as HTML: numeric columns by class, not by a ``style`` attribute (the site's
    Content-Security-Policy allows no inline style)."""
    def cells(tag: str, row: tuple[str, ...]) -> str:
        out = []
        for index, text in enumerate(row):
            numeric = index < len(table.numeric) and table.numeric[index]
            out.append(f'<{tag} class="calc-num">{escape(text)}</{tag}>' if numeric else f"<{tag}>{escape(text)}</{tag}>")
        return "".join(out)

    body = "".join(f"<tr>{cells('td', row)}</tr>" for row in table.rows)
    return f"<table>\n<thead><tr>{cells('th', table.headers)}</tr></thead>\n<tbody>{body}</tbody>\n</table>"

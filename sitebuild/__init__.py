"""Build of the static site: the Markdown extension, the engine's files, and what follows MkDocs."""

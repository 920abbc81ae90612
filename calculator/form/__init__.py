"""The form framework: fields, reading and formatting Italian numbers, evaluation, the JSON API, HTML and SVG charts.

It knows no LLM: pages declare calculators with it; nothing here imports ``calculator.llm`` or ``calculator.pages``.
"""

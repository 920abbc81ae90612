"""Calculations for the Calcolatori per l'addestramento site.

Pure Python, standard library only: the same code runs natively at build time and in the browser through Pyodide.
Three rooms: ``form`` (the form framework: fields, Italian numbers, evaluation, HTML, charts; knows no LLM),
``llm`` (the domain library: plain numbers in and out, knows no form) and ``pages`` (one module per calculator,
built on both).
"""

from .form.api import handle, respond
from .form.registry import CALCULATORS, get

__all__ = ["CALCULATORS", "get", "handle", "respond"]
__version__ = "0.1.0"

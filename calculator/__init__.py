"""Calculations for the Calcolatori per l'addestramento site.

Pure Python, standard library only: the same code runs natively at build time
and in the browser through Pyodide.
"""

from .api import handle, respond
from .registry import CALCULATORS, get

__all__ = ["CALCULATORS", "get", "handle", "respond"]
__version__ = "0.1.0"

"""Units, one name per meaning: bytes in each unit, and the one conversion between decimal and binary gigabytes.

Inside the library every memory is a number of bytes or of GB (10⁹ byte); pages convert at their edge.
"""

from __future__ import annotations

from decimal import Decimal

BYTES_PER_KB = Decimal(10**3)
BYTES_PER_MB = Decimal(10**6)
BYTES_PER_GB = Decimal(10**9)
BYTES_PER_MIB = Decimal(2**20)
BYTES_PER_GIB = Decimal(2**30)
GB_PER_GIB = BYTES_PER_GIB / BYTES_PER_GB  # 1,073741824: a GPU "da 80 GB" has 80 GiB = 85,9 GB
GB_PER_MB = BYTES_PER_MB / BYTES_PER_GB

# Bytes of one value in each floating-point format people train in.
BYTES_PER_VALUE = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1}

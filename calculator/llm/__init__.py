"""The domain library: architectures and the catalogue, GPUs, units, activation memory, optimizer states and
sharding, DeepSpeed's estimators, the accumulation plan, LoRA counting. Plain numbers in, plain numbers out; it
knows no form, so the measurement tools import it as it is.
"""

"""``ENV``: vendor environment variables (NCCL, HIP/ROCr, CUDA, OpenMP, PyTorch, CANN).

``facts.py`` holds the vendors' variable lists and the near-miss matcher; every other
module holds one rule.
"""

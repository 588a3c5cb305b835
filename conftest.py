"""Collection: optional dependencies' modules are collected (for their doctests) only where the
dependency is installed: streamreg.sklearn needs scikit-learn, the numba scoring kernel numba."""
import importlib.util

collect_ignore = [] if importlib.util.find_spec("sklearn") else ["streamreg/sklearn.py"]
if importlib.util.find_spec("numba") is None:
    collect_ignore.append("streamreg/models/kernels/numba_kernel.py")

"""Collection: streamreg.sklearn's doctests need scikit-learn, an optional dependency."""
import importlib.util

collect_ignore = [] if importlib.util.find_spec("sklearn") else ["streamreg/sklearn.py"]

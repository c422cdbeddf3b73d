# SPDX-License-Identifier: Apache-2.0
# Debian's python3-pyroute2 lacks the generated version module, so
# pyroute2.__version__ is 'unknown' and ovs-dpctl.py's version check raises.
# Tests put this directory on PYTHONPATH to give it the version its package
# metadata states.
import importlib.metadata

try:
    import pyroute2

    if pyroute2.__version__ == "unknown":
        pyroute2.__version__ = importlib.metadata.version("pyroute2")
except Exception:
    pass

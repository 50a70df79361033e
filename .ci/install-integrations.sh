#!/usr/bin/env bash
# Installs what the integrations' tests run (crates/tack-cli/tests/{ray,
# kubernetes}.rs) into a venv under target/integrations/ (or
# $TACK_INTEGRATIONS_DIR): Ray (PyPI `ray`, a wheel: about a minute) for a
# local single-node cluster, and kubernetes-validate (the Kubernetes JSON
# schemas, offline) for the Indexed Job manifest. Idempotent (see pip-venv.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/pip-venv.sh install-integrations "${TACK_INTEGRATIONS_DIR:-target/integrations}" \
    ray==2.40.0 kubernetes-validate==1.37.0

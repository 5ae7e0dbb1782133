#!/usr/bin/env bash
# Creates .venv beside this file and installs gsr-bench into it (editable, with every extra and the test extras).
set -euo pipefail
cd "$(dirname "$0")"
if [[ ! -x .venv/bin/python ]]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -c constraints.txt -e ".[all,test]"

#!/usr/bin/env bash
# Fails when a user-visible string of the studio is not translated: runs lupdate over ui/, widgets/, app/studio/ and the
# caption schema's labels (translations/caption_schema_strings.cpp)
# into copies of translations/*.ts and reports every message that is new (not yet in the committed file), unfinished
# or empty. Usage: scripts/check-translations.sh [LUPDATE]
set -euo pipefail
cd "$(dirname "$0")/.."
lupdate=${1:-$(command -v lupdate || echo /usr/lib/qt6/bin/lupdate)}
[[ -x "$lupdate" ]] || { echo "check-translations: lupdate not found (qt6-l10n-tools)"; exit 1; }
scripts/caption-schema-strings.py --check
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for ts in translations/worldstudio_*.ts; do
  copy="$tmp/$(basename "$ts")"
  cp "$ts" "$copy"
  lang=$(basename "$ts" .ts); lang=${lang#worldstudio_}
  # English is the source language: its file holds plural forms only.
  plural=(); [[ $lang == en ]] && plural=(-pluralonly)
  "$lupdate" -silent -locations none -no-obsolete "${plural[@]}" ui widgets app/studio translations/caption_schema_strings.cpp translations/request_schema_strings.cpp -ts "$copy" >/dev/null
  python3 - "$copy" "$lang" <<'PY' || status=1
import sys, xml.etree.ElementTree as ET
path, lang = sys.argv[1], sys.argv[2]
root = ET.parse(path).getroot()
bad = []
for ctx in root.iter("context"):
    name = ctx.findtext("name")
    for m in ctx.iter("message"):
        t = m.find("translation")
        src = m.findtext("source") or ""
        numerus = m.get("numerus") == "yes"
        if t is None or t.get("type") in ("unfinished", "vanished", "obsolete"):
            if t is not None and t.get("type") in ("vanished", "obsolete"): continue
            bad.append((name, src, "unfinished"))
        elif lang != "en" and not numerus and not (t.text or "").strip() and src.strip():
            bad.append((name, src, "empty"))
total = sum(1 for _ in root.iter("message"))
for name, src, why in bad[:40]:
    print(f"  {lang}: {why}: [{name}] {src!r}")
if bad:
    print(f"check-translations: {lang}: {len(bad)} of {total} strings need a translation (update with lupdate, translate in Qt Linguist)")
    sys.exit(1)
print(f"check-translations: {lang}: all {total} strings translated")
PY
done
exit $status

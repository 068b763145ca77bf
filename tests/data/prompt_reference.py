# The reference's prompt formatting restated in Python: str.format, strip and json.dumps are the peer.
import sys, json
D = "The video is {duration:.1f} seconds long and is of {fps:.0f} FPS."
R = "This video is of {height}x{width} resolution."
ID = "The video is not {duration:.1f} seconds long and is not of {fps:.0f} FPS."
IR = "This video is not of {height}x{width} resolution."
RI = "This image is of {height}x{width} resolution."
IRI = "This image is not of {height}x{width} resolution."
def plain(p, s, image, dur, res, always):
    p = p.strip()
    if (not image or always) and dur:
        p = p.rstrip('.') + '. ' + dur.format(duration=s['nf'] / s['fps'], fps=s['fps'])
    p = p.strip()
    return p.rstrip('.') + '. ' + res.format(height=s['h'], width=s['w'])
for line in sys.stdin:
    s = json.loads(line)
    p, image, fps = s['p'], s['image'], s['fps']
    if fps == int(fps): fps = int(fps); s['fps'] = fps
    if s['neg'] == 'same':
        out = plain(p, s, image, None if image else D, RI if image else R, False).lstrip('.').strip()
    elif s['neg'] == 'inverse':
        out = plain(p, s, image, None if image else ID, IRI if image else IR, True).lstrip('.').strip()
    else:
        try:
            obj = json.loads(p)
        except Exception:
            obj = None
        if isinstance(obj, dict):
            upd = {}
            if not image:
                upd.update({"duration": f"{int(s['nf'] / fps)}s", "fps": float(fps)})
            else:
                obj.pop("duration", None); obj.pop("fps", None)
            upd["resolution"] = {"H": s['h'], "W": s['w']}
            upd["aspect_ratio"] = s['aspect']
            obj.update(upd)
            out = json.dumps(obj)
        else:
            out = plain(p, s, image, None if image else D, RI if image else R, False)
    print(json.dumps(out))

import json
from app import config

def handle(req):
    return json.dumps(config.load(req))

import threading


def by_length(word):
    return len(word)


class Worker:
    def start(self, words):
        words.sort(key=by_length)
        t = threading.Thread(target=self.run)
        handlers = {"sort": sorted, "len": by_length}
        return map(str.upper, words)

    def run(self):
        pass

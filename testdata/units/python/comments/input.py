class Sniffer:
    def has_header(self, sample):
        # Creates a dictionary of types of data in each column. If any
        # column is of a single type (say, integers), *except* for the first
        # row, then the first row is presumed to be labels.
        rdr = reader(sample)
        return rdr


class Dialect:  # the base class
    """Describe a CSV dialect."""

    def validate(self,
                 strict,  # raise on the first error
                 quoting=None):  # keep the default
        return strict


def tail(items):
    # last item
    return items[-1]

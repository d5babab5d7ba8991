#!/usr/bin/perl
# Shapes and their areas.
package Shape::Circle;

use strict;
use warnings;
use parent -norequire, 'Shape::Base';
use List::Util qw(sum);
use constant PI => 3.14159;

# Makes a circle of radius r.
sub new {
    my ($class, %args) = @_;
    my $self = { r => $args{r} // 1 };
    return bless $self, $class;
}

=head2 area

The area of the circle: { braces } in POD do not count.

=cut

sub area {
    my $self = shift;
    my $s = "}{";           # a brace in a string
    my $re = qr{\{(\d+)\}};  # and in a pattern
    $s =~ s/\}/x/g;
    return PI * $self->{r} ** 2 + helper($#{ $self->{list} || [] });
}

sub _helper { return scalar @_ }

package Shape::Util {
    sub total {
        my @shapes = @_;
        my $text = <<"END";
sub not_a_sub { }
END
        return sum(map { $_->area } @shapes);
    }
}

sub helper { &_helper(@_) }

1;
__END__
sub after_end { }

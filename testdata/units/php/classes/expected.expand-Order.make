F_ public static function make(): static
{
    return new static('x');
}

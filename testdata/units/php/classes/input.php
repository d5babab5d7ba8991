<html><body><?= $title ?></body></html>
<?php
namespace App\Shop;

use App\Base\Model;
use function App\Util\format;

const MAX_ITEMS = 10;

function helper(int $x): int
{
    return $x * 2;
}

class Order extends Model implements \JsonSerializable, Countable
{
    use Timestamps, SoftDeletes;

    const STATUS_OPEN = 'open', STATUS_DONE = 'done';
    public static int $count = 0;
    private ?string $id = null;
    protected array $lines = [], $meta;

    public function __construct(string $id, private int $qty = 1)
    {
        $this->id = $id;
    }

    public function jsonSerialize(): mixed
    {
        return ['id' => $this->id];
    }

    public static function make(): static
    {
        return new static('x');
    }

    abstract protected function total(): float;
}

interface Countable
{
    public function count(): int;
}

trait Timestamps
{
    public function touch(): void {}
}

enum Suit: string
{
    case Hearts = 'H';
    case Spades = 'S';

    public function color(): string { return 'Red'; }
}

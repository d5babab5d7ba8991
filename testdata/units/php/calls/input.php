<?php
namespace App;

use App\Models\{User, Item};
use Psr\Log\LoggerInterface as Logger;
require_once __DIR__ . '/bootstrap.php';
include 'helpers.php';

class Cart extends \App\Base implements Priced
{
    use Loggable;

    public function add(Item $item): void
    {
        $this->items[] = $item;
        log_event('added');
        $copy = new Item($item->name);
        $other = new \App\Models\User();
        self::refresh();
        static::count();
        $this->notify($copy);
        $this?->maybe();
        array_map(fn($i) => $i->price(), $this->items);
    }
}

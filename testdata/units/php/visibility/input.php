<?php
class Vis
{
    public $a;
    protected $b;
    private $c;
    var $d;

    function implicitPublic() {}
    public function pub() {}
    protected function prot() {}
    private function priv() {}
    public static function util() {}
    final public const LIMIT = 5;
    private const SECRET = 'x';
}

function free_function() {}

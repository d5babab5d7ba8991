<?php
class Broken
{
    public function ok()
    {
        run();
    }

    public function bad()
    {
        $x = ;
        run(1, 2;
    }

    public function after()
    {
        run();
    }
}

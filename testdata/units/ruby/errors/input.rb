class Broken
  def ok
    run
  end

  def bad
    foo(1, 2
  end

  def after
    run
  end
end

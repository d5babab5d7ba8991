require "set"
require_relative "../lib/cart"
load "tasks.rb"

class Cart < Shop::Base
  include Enumerable
  include Shop::Priced
  extend Forwardable
  prepend Logging

  def add(item)
    items << item
    log "added"
    copy = Item.new(item.name)
    refresh
    items.each { |i| i.touch }
  end

  def price
    items.sum(&:price).round(2)
  end

  def refresh
    super
    Shop::Cache.new.clear!
    notify(self) if dirty?
  end
end

require "json"
require_relative "lib/base"

MAX_ITEMS = 10

module Shop
  VERSION = "1.0"

  class Order < Base
    include Comparable
    extend Forwardable
    attr_reader :id, :lines
    attr_accessor :status

    def initialize(id)
      @id = id
      @lines = []
    end

    def self.build(attrs)
      new(attrs[:id])
    end

    class << self
      def registry
        @registry ||= {}
      end
    end

    def <=>(other)
      id <=> other.id
    end

    def total?
      lines.any?
    end

    class Line < Struct.new(:price, :qty)
      def amount = price * qty
    end
  end

  module Helpers
    def self.format(x)
      x.to_s
    end

    module_function

    def twice(x)
      x * 2
    end
  end
end

class Shop::Admin::Report
  def run; end
end

def top_level_helper
  puts "hi"
end

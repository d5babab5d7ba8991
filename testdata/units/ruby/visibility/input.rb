class Vis
  def pub_one; end

  private

  def hidden_one; end
  attr_accessor :secret

  protected

  def prot_one; end

  public

  def pub_two; end

  private def inline_private; end

  def later_private; end
  def later_other; end
  private :later_private

  def self.factory; end
  private_class_method :factory

  class << self
    def meta; end

    private

    def meta_private; end
  end
end

module Util
  module_function

  def helper; end
end

# A user account.
# Holds the login state.
class Account
  # Number of failed logins.
  attr_reader :failures

  # Logs the user in.
  #
  # @param password [String] the secret
  def login(password)
    check(password)
  end

  # not attached: blank line follows

  def lock
  end

  ##
  # Marker-style comment.
  def reset
  end
end

class Documented
  # First statement of a class body keeps its comment.
  def first; end
end
